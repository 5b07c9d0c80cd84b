from mirage_query.cli import main

main()
