"""`python -m homeagent` runs the CLI."""

from homeagent.cli import main

raise SystemExit(main())
