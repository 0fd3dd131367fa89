"""``python -m front``: serve Tabula with uvicorn (front/server.py)."""

from front.server import main

main()
