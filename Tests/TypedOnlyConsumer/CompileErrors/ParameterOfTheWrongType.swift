// expect: cannot convert value of type 'KeyPath<Person, Int32>' to expected argument type 'KeyPath<Person, String>'
import Sluice

struct Person: Sendable { let name: String; let age: Int32; let nickname: String }
let mapping = try Mapping(Person.init, Parameter("name", \.name), Parameter("nickname", \.nickname), Parameter("age", \.age))
