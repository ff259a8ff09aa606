"""Sweeps and matchups: many queries at once, as tables (pandas, Parquet), on a local process pool or a
Dask cluster. Needs the [scale] extra (pandas, pyarrow, dask[distributed]); nothing here is imported
by the other commands."""
