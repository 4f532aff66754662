"""Subcommands of the `political-sycophancy` CLI, one module each."""
