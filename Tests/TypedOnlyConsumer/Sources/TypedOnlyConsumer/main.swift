import Sluice

struct Person { var id: Int64 = 0; var name = "" }

let mapping = try Mapping(Person.init) {
    Field("id", \.id)
    Field("name", \.name)
}
let reader = try TypedReader(input: .bytes(Array("{\"id\":1,\"name\":\"Ann\"}\n{\"id\":2,\"name\":\"Bo\"}\n".utf8)), mapping: mapping)
while let batch = try reader.next() {
    for person in batch.models { print(person.id, person.name) }
}
