"""The terminal TF viewer: a ROS node (:mod:`.viewer`) over a ROS-free frame tree and screen layout."""
