package datasets_test

import (
	"fmt"
	"log"
	"math/rand/v2"

	"privic/datasets"
)

// Load the Paris counts the way the paper's reference code sees them, and
// plant the reference island at A = (6, 3).
func Example() {
	d, err := datasets.Load("paris", datasets.LoadOptions{Rows: datasets.HeaderQuirk})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: N = %d check-ins on a %v grid\n", d.Name, d.N, d.Grid)

	paris, err := datasets.Lookup("paris")
	if err != nil {
		log.Fatal(err)
	}
	place, _ := paris.Place("A")
	island, err := datasets.Island(d.Grid, d.Prior(), datasets.ReferenceIsland(place))
	if err != nil {
		log.Fatal(err)
	}
	a := d.Grid.Index(place.Row, place.Col)
	fmt.Printf("island prior: A = cell %d with mass %.2f\n", a, island[a])

	// 10% of the reports falsely claim to be at A.
	adv, err := datasets.Inject(island, a, 0.1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("with 10%% adversarial reports: A has mass %.3f\n", adv[a])
	// Output:
	// paris: N = 10078 check-ins on a 11x15 grid
	// island prior: A = cell 93 with mass 0.01
	// with 10% adversarial reports: A has mass 0.109
}

func ExampleArange() {
	// NumPy's arange(1, 1.3, 0.1) has four values, the last above 1.3.
	v, _ := datasets.Arange(1, 1.3, 0.1)
	fmt.Println(v)
	// Output:
	// [1 1.1 1.2000000000000002 1.3000000000000003]
}

func ExampleSynthetic() {
	rng := rand.New(rand.NewPCG(1, 2))
	d, err := datasets.Synthetic(rng, datasets.SyntheticOptions{
		Rows: 32, Cols: 48, N: 100000, Hotspots: 5, Background: 0.1,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Grid, d.N, d.Validate() == nil)
	// Output:
	// 32x48 100000 true
}

func ExampleLookup() {
	_, err := datasets.Lookup("lyon")
	fmt.Println(err)
	// Output:
	// unknown city "lyon": known cities are paris, sf (names are exact)
}
