module github.com/meshscope/meshscope

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	k8s.io/apimachinery v0.37.2
)

require (
	github.com/go-logr/logr v1.4.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
	k8s.io/utils v0.0.0-20260626114624-be93311217bd // indirect
)
