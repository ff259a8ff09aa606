"""The engine: one `attack()` that resolves any query, choosing the fastest exact method itself."""
