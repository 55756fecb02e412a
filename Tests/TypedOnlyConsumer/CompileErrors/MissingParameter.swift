// expect: missing argument for parameter
import Sluice

struct Person: Sendable { let name: String; let age: Int32 }
let mapping = try Mapping(Person.init, Parameter("name", \.name))
