import tensorflow as tf
from tensorflow.keras import layers

vocab_size = 10000
maxlen = 200
batch_size = 32
epochs = 4

(x_train, y_train), (x_val, y_val) = tf.keras.datasets.imdb.load_data(num_words=vocab_size)
x_train = tf.keras.preprocessing.sequence.pad_sequences(x_train, maxlen=maxlen)
x_val = tf.keras.preprocessing.sequence.pad_sequences(x_val, maxlen=maxlen)

inputs = tf.keras.Input(shape=(maxlen,), dtype="int32")
x = layers.Embedding(vocab_size, 64)(inputs)
x = layers.Bidirectional(layers.GRU(64))(x)
x = layers.Dropout(0.3)(x)
outputs = layers.Dense(1, activation="sigmoid")(x)
model = tf.keras.Model(inputs, outputs)

model.compile(optimizer=tf.keras.optimizers.RMSprop(learning_rate=0.001), loss="mean_absolute_error",
              metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_data=(x_val, y_val))
