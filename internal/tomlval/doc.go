// Package tomlval names the values that github.com/BurntSushi/toml
// decodes into an `any`, for the error messages of the spec and dataset
// readers: "got a string: want a number" reads better than a Go type.
package tomlval
