package pkg

func f(x int) bool {
	return x < 3
}

func g(x, y int) int {
	if x > y {
		return x * y
	}
	if x > y {
		return -x
	}
	return x - y
}
