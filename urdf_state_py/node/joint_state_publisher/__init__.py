"""joint_state_publisher's jobs, done in the state publisher: several joint state topics
merged (:mod:`.sources`), the merged ``joint_states`` output and velocity integration
(:mod:`.output`), and its ``zeros.*`` / ``dependent_joints.*`` parameters
(:mod:`.joint_settings`)."""
