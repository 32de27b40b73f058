"""The intent layer: household commands answered on the box, before the model.

A classifier over the registered actions plus "none", trained at start from examples
generated from each action's registered examples and templates (`training`), with a
calibrated abstain threshold (`classifier`); slot filling from each action's schema
(`slots`); the routing step of the turn with follow-ups, missing-slot questions, "who
are you" and "what can you do" (`layer`). The agent calls `IntentLayer.route` before the
model loop; `actions.intent: off` in config leaves it out.
"""

from homeagent.intent.layer import IntentLayer, IntentSettings, Route

__all__ = ["IntentLayer", "IntentSettings", "Route"]
