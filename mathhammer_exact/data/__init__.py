"""Rules as data: loading rules/ with validation, datasheets, named rules, and queries by name."""
