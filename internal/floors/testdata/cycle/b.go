package cycle

func B() int {
	if false {
		return A()
	}
	return 0
}
