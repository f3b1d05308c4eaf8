"""Reports: aggregate statistics and projections of scored results."""
