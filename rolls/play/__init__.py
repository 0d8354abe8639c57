"""Playing at the table: rolls and their follow-ups, the GM's rolls for people without a sheet, calls for a roll."""
