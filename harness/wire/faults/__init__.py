"""The fault kinds, one module each, registered here in pipeline order (``base`` draws
the pipeline; anything that touches a Reply imports this package, so all are registered).

    key          changes     what it does
    pings        the events  ping events spread through the stream
    insert       the events  raw events inserted after event k
    duplicate    the events  event k sent twice
    swap         the events  events k and k+1 change places
    error_event  the events  an ``event: error`` after event k ends the stream
    end_early    the events  a clean end after event k, before message_stop
    bad_data     the events  a ``data:`` line that is not JSON after event k
    pace         the bytes   the headers and each event at their times (as recorded, or drawn)
    stall        the bytes   silence after event k: the client's read times out
    interrupt    the bytes   Ctrl+C while streaming, after event k
    cut          the bytes   the connection drops (FIN or RST) after an event, inside one,
                             after n bytes or inside a UTF-8 character
    drip         the bytes   the body in small chunks, some time apart

A new kind is a new module beside these and one name in ``register`` below, at its place
in the pipeline (docs/architecture.md, "Adding a fault kind").
"""

from harness.wire.faults.bad_data import BadData
from harness.wire.faults.base import register
from harness.wire.faults.cut import Cut
from harness.wire.faults.drip import Drip
from harness.wire.faults.duplicate import Duplicate
from harness.wire.faults.end_early import EndEarly
from harness.wire.faults.error_event import ErrorEvent
from harness.wire.faults.insert import Insert
from harness.wire.faults.interrupt import Interrupt
from harness.wire.faults.pace import Pace
from harness.wire.faults.pings import Pings
from harness.wire.faults.stall import Stall
from harness.wire.faults.swap import Swap

register(Pings, Insert, Duplicate, Swap, ErrorEvent, EndEarly, BadData, Pace, Stall, Interrupt, Cut, Drip)
