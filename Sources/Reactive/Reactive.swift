/// Combine's API on Linux. See README.md.
