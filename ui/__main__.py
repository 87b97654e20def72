"""`python -m ui ...` is the `qa` command with the web chat's `serve` registered directly."""

from qa.cli import main
from ui.cli import register

raise SystemExit(main(commands={"serve": register}))
