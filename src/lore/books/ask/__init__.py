"""`lore books ask`: answers built only from the reader's visible text, every sentence a checked quote.

The pipeline (`pipeline.ask_stream`) reads the question into parts, gathers passages under the
reader's cap (search, the names the question and the hits mention, the passages those names
share), asks a model for claims that each quote one passage, cuts every claim whose quote is
not in its passage or whose passage does not support it, and has the survivors written up with
every sentence cited. Without a model the answer is the best verbatim sentences, each cited.
Nothing past the cap is gathered, so nothing past it can be sent.
"""

from lore.books.ask.pipeline import ask, ask_stream
from lore.books.ask.records import Answer, Citation, Claim, Event, Sentence
from lore.books.ask.switches import SWITCHES, Switches

__all__ = ["SWITCHES", "Answer", "Citation", "Claim", "Event", "Sentence", "Switches", "ask", "ask_stream"]
