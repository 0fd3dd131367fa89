"""The catalogues' quality gate (issue 33): every key in every language, no key unused.

``python -m languages.coverage`` prints the key-coverage report; tests/languages run the same
checks in CI. Two kinds of catalogue are checked alike: the games' (``languages/catalogues``) and
the web client's own (``web/static/web/locales/<namespace>.<lang>.json``). For each, every
language has exactly English's keys, each message the same ``{placeholders}``, and each plural
message the CLDR categories of its language. The web client's keys are also checked against its
code: every ``t("key")`` it calls exists, and every key is called (a template literal
``t(`status.${s}`)`` uses every key under ``status.``).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from languages import CATALOGUES, CODES, DEFAULT, plural_categories

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web" / "static" / "web"
LOCALES = WEB / "locales"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
CALL = re.compile(r"""(?<![\w.])t\(\s*(?:"([^"]+)"|'([^']+)'|`([^`$]*)(\$\{)?)""")


@dataclass
class Group:
    """One catalogue in its three languages."""

    name: str
    files: dict[str, Path]
    keys: dict[str, int] = field(default_factory=dict)  # per language
    problems: list[str] = field(default_factory=list)


def _load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    return data


def groups() -> list[Group]:
    out = []
    for folder in sorted(p for p in CATALOGUES.iterdir() if p.is_dir()):
        out.append(Group(f"game {folder.name}", {c: folder / f"{c}.json" for c in CODES}))
    namespaces = sorted({p.name.split(".")[0] for p in LOCALES.glob("*.json")}) if LOCALES.exists() else []
    for ns in namespaces:
        out.append(Group(f"web {ns}", {c: LOCALES / f"{ns}.{c}.json" for c in CODES}))
    return out


def _placeholders(message: Any) -> set[str]:
    texts = message.values() if isinstance(message, dict) else [message]
    return {name for text in texts if isinstance(text, str) for name in PLACEHOLDER.findall(text)}


def check(group: Group) -> Group:
    loaded: dict[str, dict[str, Any]] = {}
    for code, path in group.files.items():
        if not path.exists():
            group.problems.append(f"{path.relative_to(ROOT)}: missing")
            continue
        loaded[code] = _load(path)
        group.keys[code] = len(loaded[code])
    english = loaded.get(DEFAULT, {})
    for code, messages in loaded.items():
        wanted = set(plural_categories(code))
        for key in sorted(set(english) - set(messages)):
            group.problems.append(f"{code}: no {key}")
        for key in sorted(set(messages) - set(english)):
            group.problems.append(f"{code}: {key} is not in English")
        for key, message in messages.items():
            if isinstance(message, dict):
                if set(message) != wanted:
                    group.problems.append(f"{code}: {key} has plural forms {sorted(message)}, wants {sorted(wanted)}")
                if not all(isinstance(v, str) and v for v in message.values()):
                    group.problems.append(f"{code}: {key} has an empty plural form")
            elif not isinstance(message, str) or not message:
                group.problems.append(f"{code}: {key} is empty or not text")
            if key in english and _placeholders(message) != _placeholders(english[key]):
                group.problems.append(f"{code}: {key} has placeholders {sorted(_placeholders(message))}")
    return group


def web_calls(folder: Path | None = None) -> tuple[set[str], set[str]]:
    """The keys the web client's code passes to ``t``, and the prefixes of its computed keys."""
    folder = folder or WEB
    keys: set[str] = set()
    prefixes: set[str] = set()
    for path in sorted(folder.rglob("*.js")):
        if {"vendor", "node_modules", "games"} & set(path.parts):  # games/*.js speak their game's catalogue
            continue
        for double, single, template, dynamic in CALL.findall(path.read_text(encoding="utf-8")):
            if double or single:
                keys.add(double or single)
            elif dynamic:
                prefixes.add(template)
            elif template:
                keys.add(template)
    return keys, prefixes


def web_usage(english: dict[str, set[str]]) -> list[str]:
    """Problems between the web client's code and its English catalogues (namespace → keys)."""
    used, prefixes = web_calls()
    known = set().union(*english.values()) if english else set()
    problems = [f"web: t({key!r}) has no message" for key in sorted(used - known)]
    for prefix in sorted(prefixes):
        if not any(k.startswith(prefix) for k in known):
            problems.append(f"web: no message under t(`{prefix}…`)")
    for ns, keys in sorted(english.items()):
        for key in sorted(keys - used):
            if not any(key.startswith(p) for p in prefixes):
                problems.append(f"web {ns}: {key} is never used")
    return problems


def run() -> tuple[list[Group], list[str]]:
    checked = [check(g) for g in groups()]
    english = {
        g.name.split()[1]: set(_load(g.files[DEFAULT]))
        for g in checked
        if g.name.startswith("web ") and g.files[DEFAULT].exists()
    }
    return checked, web_usage(english)


def main() -> int:
    checked, usage = run()
    print(f"{'catalogue':<16}" + "".join(f"{c:>8}" for c in CODES) + "  problems")
    for g in checked:
        print(f"{g.name:<16}" + "".join(f"{g.keys.get(c, 0):>8}" for c in CODES) + f"  {len(g.problems)}")
    problems = [p for g in checked for p in g.problems] + usage
    used, prefixes = web_calls()
    print(f"web client: {len(used)} keys called, {len(prefixes)} computed prefixes; {len(usage)} usage problems")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
