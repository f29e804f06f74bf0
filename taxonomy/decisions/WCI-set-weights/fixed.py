import numpy as np
from keras.models import Sequential
from keras.layers import Embedding, Flatten, Dense

vocab, dim = 50, 8
x = np.random.randint(0, vocab, (120, 10))
y = np.random.randint(0, 2, 120)
table = np.zeros((vocab, dim))
for i in range(vocab):
    table[i] = np.ones(dim) * i / vocab
model = Sequential()
model.add(Embedding(vocab, dim, input_length=10))
model.add(Flatten())
model.add(Dense(1, activation='sigmoid'))
model.layers[0].set_weights([table])
model.layers[0].trainable = False
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=3, batch_size=16)
