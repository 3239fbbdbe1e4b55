"""Where the shipped data live: the repository's data/ folder (the kit is installed editable)."""

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
