"""The screening gate: refusals, risky wording, contradiction, trust, and the decision."""
