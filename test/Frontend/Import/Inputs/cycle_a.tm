import cycle_b;
