"""The campaign's history afterwards: browsing, the GM's marks, exports, the checks and imports."""
