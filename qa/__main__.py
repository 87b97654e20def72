"""`python -m qa`: the `qa` command, for when its script is not on the PATH."""

from qa.cli import main

raise SystemExit(main())
