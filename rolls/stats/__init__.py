"""The statistics: what each roll keeps for them, the sums kept as the log moves on, and the pages' figures."""
