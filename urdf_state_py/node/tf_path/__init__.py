"""JointState in, /tf out: the per-message path of one robot.

The raw CDR decoder (:mod:`.joint_state_cdr`, and its C twin in :mod:`.native`),
the merger of partial joint states and the rate limit (:mod:`.joint_state_merger`,
:mod:`.publish_throttle`), the fused fast path (:mod:`.fast_path`), the pre-serialised
/tf messages (:mod:`.tf_publishing`), and the threads that serve the subscription
(:mod:`.hot_path` in Python, :mod:`.native_loop` in C) with the lock that ties them to
parameter changes (:mod:`.joint_state_input`).
"""
