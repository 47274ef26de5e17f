"""The `hdtrace` subcommands, one module each; every module has
register(commands), which adds its subparser to the command's."""
