"""A rating model subclassing keras.Model with Embedding and Dense layers (mutation subject).

Users and items are the rows and columns of the digits images; a rating is the pixel value.
"""

import numpy as np
from sklearn.datasets import load_digits
from tensorflow import keras
from tensorflow.keras import layers


class Recommender(keras.Model):
    """Two embeddings joined, a hidden layer, a linear projection without bias and a rating output."""

    def __init__(self, users, items, size=8):
        super().__init__()
        self.user_embedding = layers.Embedding(users, size, embeddings_initializer="uniform")
        self.item_embedding = layers.Embedding(
            items, size, embeddings_regularizer=keras.regularizers.l2(1e-4)
        )
        self.hidden = layers.Dense(16, activation="relu", kernel_initializer="glorot_uniform")
        self.project = layers.Dense(8, use_bias=False)
        self.rating = layers.Dense(1, activation="sigmoid")

    def call(self, inputs):
        user = self.user_embedding(inputs[:, 0])
        item = self.item_embedding(inputs[:, 1])
        joined = keras.ops.concatenate([user, item], axis=-1)
        return self.rating(self.project(self.hidden(joined)))


images = load_digits().images[:200]
pairs = np.array([(row, col) for row in range(8) for col in range(8)] * len(images), dtype="int32")
ratings = (images.reshape(-1, 1) / 16.0).astype("float32")
x_train, y_train = pairs, ratings

model = Recommender(8, 8)
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x_train, y_train, epochs=2, batch_size=256, verbose=0)
print(model.evaluate(x_train, y_train, verbose=0))
