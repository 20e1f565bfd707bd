package cycle

func C() int { return A() }
