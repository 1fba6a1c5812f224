"""Container entrypoint of the Driftproof Action; everything lives in ``driftproof.action``."""

from driftproof.action import main

if __name__ == "__main__":
    raise SystemExit(main())
