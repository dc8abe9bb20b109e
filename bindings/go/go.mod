module github.com/acldump/acldump-go

go 1.19
