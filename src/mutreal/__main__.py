"""``python -m mutreal`` is the ``mutreal`` command."""

from mutreal.cli import main

if __name__ == "__main__":
    main()
