"""Pictures: plain, deterministic SVG written by pbem (no browser, no network), shared by the games."""
