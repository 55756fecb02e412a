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
// `{"id":3,"name":"Cy"}` as `gzip -n9` writes it: without the FastGzip trait, zlib inflates it.
let gzip: [UInt8] = [
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0xca, 0x4c, 0x51, 0xb2, 0x32, 0xd6, 0x51,
    0xca, 0x4b, 0xcc, 0x4d, 0x55, 0xb2, 0x52, 0x72, 0xae, 0x54, 0xaa, 0xe5, 0x02, 0x00, 0x91, 0xbc, 0xff, 0x7f, 0x15,
    0x00, 0x00, 0x00,
]
let compressed = try TypedReader(input: .bytes(gzip), mapping: mapping)
while let batch = try compressed.next() {
    for person in batch.models { print(person.id, person.name) }
}
