"""`python -m emem`: the same as the `emem` command."""

from emem.cli import main

if __name__ == "__main__":
    main()
