"""``python -m driftproof``."""

from driftproof.cli import main

raise SystemExit(main())
