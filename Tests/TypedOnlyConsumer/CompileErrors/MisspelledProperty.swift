// expect: value of type 'Person' has no member 'nmae'
import Sluice

struct Person: Sendable { var name = ""; var age = 0 }
let mapping = try Mapping({ Person() }) {
    Field("name", \.nmae)
    Field("age", \.age)
}
