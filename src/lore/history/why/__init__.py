"""`lore history why`: the ranked evidence behind code, and answers that cite it verbatim."""
