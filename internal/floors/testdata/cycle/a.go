package cycle

func A() int { return B() + 1 }
