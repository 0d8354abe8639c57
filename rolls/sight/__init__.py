"""What one person at the table sees of the log: the audience rule, the cards and the panels drawn for them."""
