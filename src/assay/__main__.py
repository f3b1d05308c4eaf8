"""`python -m assay`: the same as the `assay` command."""

from assay.cli.main import console_main

if __name__ == "__main__":
    console_main()
