"""Tournaments of tables (issue 29). So far the pure part: pairing, seating and scoring (`pairing`)."""
