import ArgumentParser

SluiceCommand.main()
