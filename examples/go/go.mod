module example.com/readybell-pos

go 1.19
