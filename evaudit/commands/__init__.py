"""One module per area; each exposes COMMANDS, a list of click commands/groups."""
