package pkg

const limit = 1 << 4

func k(n int) bool { return n >= limit }
