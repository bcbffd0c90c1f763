"""What exists once per process, however many robots it serves: the spin loop and the
executor, signal handling, thread joining, the address-space ceiling and loopback DDS."""
