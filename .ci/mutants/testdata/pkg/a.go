package pkg

func f(x int) bool {
	return x < 3 // line 3
}
