module example.org/uidgen

go 1.19
