module acldump

go 1.19
