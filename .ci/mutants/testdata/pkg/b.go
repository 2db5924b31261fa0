package pkg

type sum struct{ s int }

func (t *sum) add(v []int) {
	for i := 0; i < len(v); i++ {
		t.s += v[i]
	}
}
