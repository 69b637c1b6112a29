"""The ``hexhaven`` command: the one place that wires the parts together (an embedded
server with bots and the terminal UI for ``hexhaven play``, the server for ``hexhaven
serve``, bots and bridges for a seat, the board lab's and the ladder's commands). It may
import every other package; nothing imports it."""
