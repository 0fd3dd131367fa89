// Rules for players (issue 32): /rules and /rules/{game}. Written from the rule documents the games
// come from (docs/rules/ has the engine's exact reading); pictures are the board's own components.
import { Card as EkkoCard } from "./games/ekko.js";
import { Card as EnkaCard } from "./games/enka.js";
import { Link, gameName, html, useEffect } from "./ui.js";

const ECOS_ELEMENTS = [
  ["sun", "☀"],
  ["water", "≈"],
  ["grass", "♣"],
  ["animal", "A"],
  ["earth", "E"],
  ["air", "~"],
  ["fire", "F"],
  ["wild", "✱"],
];

const RULES = {
  ekko: {
    tagline:
      "A shedding game of numbered cards, 1 to 98, for 2 to 8 players. Be the first to empty your hand; the lowest total after the last round wins.",
    sections: [
      [
        "Setup",
        html`<p>Each player gets 6 cards (5 with 4–5 players, 4 with 6–8). One card is turned up: it is the top of the
        play area. The player left of the dealer begins.</p>`,
      ],
      [
        "Your turn",
        html`<p>Play one card from your hand onto the top card:</p>
        <ul><li>on an <strong>odd</strong> card, a <strong>higher</strong> card;</li>
        <li>on an <strong>even</strong> card, a <strong>lower</strong> card.</li></ul>
        <p class="pictures"><${EkkoCard} n=${37} small /> is odd: play higher, such as <${EkkoCard} n=${52} small />, which is even: then lower.</p>
        <p>If you hold a card you may play, you must. If you hold none, draw one card: your turn ends.</p>`,
      ],
      [
        "Special cards",
        html`<dl>
        <dt>Multiples of 11 <${EkkoCard} n=${44} small /></dt><dd>Play again at once, following that card's rule. An 11-card that is your last card makes you draw one.</dd>
        <dt>Free play</dt><dd>If the card on top is still yours when your turn comes round, play any card you like.</dd>
        <dt>The mirror <${EkkoCard} n=${37} small /> ↔ <${EkkoCard} n=${73} small /></dt>
        <dd>Any player may, at any moment, even out of turn, put the <em>mirror</em> of the top card on it (its digits swapped:
          37 and 73, 05 and 50). Then choose one: <strong>discard</strong> one other card of your hand face down, or make
          <strong>every other player draw</strong> a card. Play goes on from your left. Multiples of 11 have no mirror.</dd>
        <dt>Last card</dt><dd>When someone plays their last card, the others may still answer it with its mirror for a while
          (the reaction window): the round reopens and the player who went out draws a card.</dd></dl>`,
      ],
      [
        "Scoring and the end",
        html`<p>A round ends when a player goes out, or when a draw finds the pile empty. Every other player
        scores 1 point per card in hand and 2 per multiple of 11. When someone's total reaches the target (25 by default), the
        game ends: the <strong>lowest</strong> total wins.</p>`,
      ],
    ],
    glossary: [
      ["top card", "the last card in the play area"],
      ["mirror", "the card with the two digits swapped"],
      ["reaction window", "the time to answer a last card with its mirror"],
      ["free play", "any card may be played"],
      ["went out", "emptied one's hand"],
    ],
  },
  enka: {
    tagline:
      "Match the colour or the number, play the special cards at the right moment, and get rid of your hand first. 2 to 8 players.",
    sections: [
      [
        "Setup",
        html`<p>Each player gets 6 cards (by default). One number card is turned up to start the discard pile.
        The player left of the dealer begins, clockwise.</p>`,
      ],
      [
        "Your turn",
        html`<p>Play one card that has the <strong>colour</strong> or the <strong>number</strong> (or symbol) of the top card,
        or draw one card. After drawing you may play that card if it fits, or keep it.</p>
        <p class="pictures">On <${EnkaCard} id="blue-4" small />: <${EnkaCard} id="blue-9" small /> (same colour) or
          <${EnkaCard} id="red-4" small /> (same number).</p>
        <p>With two cards left, play one saying <strong>ONE</strong> (tick the box): forget it and you draw a penalty card.</p>`,
      ],
      [
        "Special cards",
        html`<dl>
        <dt><${EnkaCard} id="green-stop" small /> STOP</dt><dd>The next player misses their turn.</dd>
        <dt><${EnkaCard} id="green-back" small /> BACK</dt><dd>The direction of play turns round (with two players: as STOP).</dd>
        <dt><${EnkaCard} id="green-take2" small /> TAKE 2</dt><dd>The next player draws 2 and misses their turn.</dd>
        <dt><${EnkaCard} id="green-take5" small /> TAKE 5</dt><dd>Every other player draws 5; play goes on normally.</dd>
        <dt><${EnkaCard} id="wild" small /> CHANGE COLOR</dt><dd>Play it on anything and name the colour to follow.</dd>
        <dt><${EnkaCard} id="wild-take4" small /> TAKE 4, CHOOSE A COLOR</dt><dd>Name a colour; the next player draws 4 and misses their turn.</dd>
        <dt>Jump-in</dt><dd>Holding a card <em>identical</em> to the top card (same colour and number)? Play it at once, out of turn:
          play goes on from you, and those in between lose their turn.</dd></dl>`,
      ],
      [
        "Scoring and the end",
        html`<p>The player who goes out scores 0; the others score their hands: numbers at face value, STOP,
        BACK, TAKE 2 and CHANGE COLOR 30, TAKE 4 50, TAKE 5 100. When a total reaches the target (500 by default, or after the last
        round when the match sets a number of rounds), the <strong>lowest</strong> total wins.</p>`,
      ],
    ],
    glossary: [
      ["top card", "the last card on the discard pile"],
      ["current colour", "the colour to follow, named by a wild"],
      ["jump-in", "an identical card played out of turn"],
      ["ONE", "the call when one card is left"],
      ["exhausted", "a round ended because no card could be drawn"],
    ],
  },
  eko: {
    tagline:
      "A game of stacks on a hex board for 2 to 4 players. Build on the capitals, capture emperors, and reach 12 victory points.",
    sections: [
      [
        "Setup",
        html`<p>Every player has 16 discs, one of them the <strong>Emperor</strong>, spread at random on the sand. Before the
        first turn each player may secretly swap their Emperor with one of their own discs.</p>`,
      ],
      [
        "Your turn",
        html`<ol>
        <li><strong>One action</strong>: <em>move</em> a whole stack across empty sand, as far as you like, onto an empty space; onto
          your own stack next to that path (at most 4 discs high); or onto an enemy stack you <em>attack</em>: it must be shorter,
          or as tall if your stack carries your Emperor. Or <em>build</em>: pay discs from a stack next to a construction space.</li>
        <li><strong>Forced march</strong> (once a turn, if you like): destroy 3 discs of your reserve for a second action.</li>
        <li><strong>Reinforce</strong>: put 1–3 discs from your reserve on one of your stacks not next to an enemy building.</li></ol>`,
      ],
      [
        "Buildings and emperors",
        html`<dl>
        <dt>▲ Camp</dt><dd>1 VP, costs 1 disc: on plains, gorges, capitals and mountains.</dd>
        <dt>♜ Tower</dt><dd>2 VP, costs 2: on gorges, capitals and mountains.</dd>
        <dt>♛ Castle</dt><dd>3 VP, costs 3: on mountains only.</dd>
        <dt>Attacks</dt><dd>Beaten discs go back to their owner's reserve. A beaten Emperor becomes your prisoner: 3 VP. A single disc
          may destroy a stack of 4 (both go back to their reserves).</dd></dl>`,
      ],
      [
        "The end",
        html`<p>You win at once with <strong>12 VP and a building on a capital</strong> (your palace), or by being the
        last player with discs on the board. At the turn limit, the most VP wins.</p>`,
      ],
    ],
    glossary: [
      ["stack", "1 to 4 discs of one player on one sand space"],
      ["reserve", "your discs off the board"],
      ["palace", "your building on a capital"],
      ["prisoner", "an enemy Emperor you captured: 3 VP"],
      ["forced march", "3 reserve discs destroyed for a second action"],
      ["q,r", "a hex's coordinates, shown on the board"],
    ],
  },
  ecos: {
    tagline:
      "You are forces of nature shaping a continent, 2 to 6 players. There are no turns: everyone answers each element drawn from the bag.",
    sections: [
      [
        "Setup",
        html`<p>The map starts with four tiles. Each player has a tableau of cards in play, a hand, a dial at 0 and 7 energy cubes.
        One player is the Harbinger, who draws the elements.</p>`,
      ],
      [
        "A draw",
        html`<p>An element is drawn from the bag (two with two players). <strong>Everyone</strong> answers it at once, in secret:
        put a cube on an empty slot of that element on one of your cards, or turn your dial.</p>
        <p class="pictures">${ECOS_ELEMENTS.map(([n, s]) => html`<span class="ecos-element" title=${n}>${s} ${n}</span> `)}</p>
        <p>A <strong>wild</strong> fits any slot, and ends the round after it is answered.</p>`,
      ],
      [
        "Cards, the dial and ECO",
        html`<dl>
        <dt>ECO</dt><dd>Fill a card's last slot and it fires: its effects add land, water, mountains, forests or animals to the map and
          score points; the cubes come back and the card loses a use.</dd>
        <dt>The dial</dt><dd>At 2 you may gain a card; at 3 you play a card from your hand or take a cube.</dd>
        <dt>Habitats</dt><dd>Each animal needs its own kind of tile; an effect that would break a habitat is not offered.</dd></dl>`,
      ],
      [
        "The end",
        html`<p>At the end of a round in which someone has 80 points (60 in the short game), the most points wins.</p>`,
      ],
    ],
    glossary: [
      ["Harbinger", "the player whose draws these are"],
      ["tableau", "your cards in play"],
      ["ECO", "a card whose slots are all filled, firing its effects"],
      ["dial", "turns for each element you do not place"],
      ["slot", "a place for one cube of one element on a card"],
    ],
  },
};

export function RulesIndex() {
  useEffect(() => {
    document.title = "Rules · Tabula";
  }, []);
  return html`<main class="rules">
    <h1>How to play</h1>
    <ul>${Object.entries(RULES).map(([g, r]) => html`<li key=${g}><${Link} href=${`/rules/${g}`}>${gameName(g)}<//>: ${r.tagline}</li>`)}</ul>
  </main>`;
}

export function RulesPage({ game }) {
  const rules = RULES[game];
  useEffect(() => {
    document.title = `${gameName(game)} rules · Tabula`;
  }, [game]);
  if (!rules)
    return html`<main class="rules"><h1>Rules</h1><p>No such game. <${Link} href="/rules">All the rules<//></p></main>`;
  return html`<main class="rules" data-rules=${game}>
    <h1>${gameName(game)}: how to play</h1>
    <p class="lead">${rules.tagline}</p>
    ${rules.sections.map(([title, body], i) => html`<section key=${i} aria-labelledby=${`r-${i}`}><h2 id=${`r-${i}`}>${title}</h2>${body}</section>`)}
    <section aria-labelledby="glossary-h"><h2 id="glossary-h">Words in the log</h2>
      <dl class="glossary">${rules.glossary.map(([w, d]) => html`<dt key=${w}>${w}</dt><dd>${d}</dd>`)}</dl></section>
    <p><${Link} href="/lobby">Play ${gameName(game)}<//> · <${Link} href="/rules">Other games<//></p>
  </main>`;
}
