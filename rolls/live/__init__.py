"""The live table: a committed entry published to every socket, rendered for each audience."""
